"""MMEngine's Runner builds the training DataLoader (``Runner.build_dataloader``) from the
``train_dataloader=dict(...)`` it is given: the script never calls DataLoader(...)."""

import sys
import tempfile
import time

import torch
from mmengine.model import BaseModel
from mmengine.runner import Runner
from torch.utils.data import Dataset


class SlowDict(Dataset):
    def __len__(self) -> int:
        return 1024

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        time.sleep(0.002)
        return {"inputs": torch.full((8,), float(i % 7)), "labels": torch.tensor(i % 2)}


class Model(BaseModel):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(8, 2)

    def forward(self, inputs: torch.Tensor, labels: torch.Tensor, mode: str = "tensor"):
        out = self.lin(inputs)
        if mode == "loss":
            return {"loss": torch.nn.functional.cross_entropy(out, labels)}
        return out


if __name__ == "__main__":
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    runner = Runner(
        model=Model(),
        work_dir=tempfile.mkdtemp(),
        train_dataloader=dict(
            dataset=SlowDict(),
            sampler=dict(type="DefaultSampler", shuffle=True),
            collate_fn=dict(type="default_collate"),
            batch_size=8,
            num_workers=0,
        ),
        train_cfg=dict(by_epoch=True, max_epochs=epochs),
        optim_wrapper=dict(optimizer=dict(type="SGD", lr=0.01)),
        default_hooks=dict(logger=dict(type="LoggerHook", interval=1000)),
    )
    runner.train()
