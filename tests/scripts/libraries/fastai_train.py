"""fastai's own DataLoader (not a torch DataLoader) feeding a plain training loop: it hands a
stand-in loader to torch's iterators. Slow samples, forever unless given a number of epochs;
the second argument is the number of samples an epoch (fastai starts its workers anew at
every epoch, so short epochs pay for many workers' start-up often)."""

import sys
import time

import torch
from fastai.data.all import DataBlock, RegressionBlock, TransformBlock


def slow_x(i: int) -> torch.Tensor:
    time.sleep(0.003)
    return torch.full((8,), float(i % 7))


if __name__ == "__main__":
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 10**6
    items = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
    block = DataBlock(
        blocks=(TransformBlock, RegressionBlock),
        get_x=slow_x,
        get_y=lambda i: float(i % 2),
        splitter=lambda items: (list(range(len(items))), []),
    )
    dls = block.dataloaders(list(range(items)), bs=8, num_workers=0, device="cpu")
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(epochs):
        for x, y in dls.train:
            loss = torch.nn.functional.mse_loss(model(x).squeeze(-1), y.float())
            opt.zero_grad()
            loss.backward()
            opt.step()
