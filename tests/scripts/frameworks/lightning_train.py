"""Lightning: a DataModule with a slow train loader (batch 8) and a val loader (batch 4).

Lightning iterates the val loader first (its 2-batch sanity check) and builds its own
loaders; --report FILE records what each loader looked like during training.
"""

import argparse
import json

import lightning.pytorch as pl
import torch
from _slow import SlowTrain, SlowVal
from torch import nn
from torch.utils.data import DataLoader


class Boring(pl.LightningModule):
    def __init__(self, report: str) -> None:
        super().__init__()
        self.layer = nn.Linear(8, 1)
        self.report = report

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.mse_loss(self.layer(x).squeeze(1), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", nn.functional.mse_loss(self.layer(x).squeeze(1), y))

    def on_train_batch_end(self, outputs, batch, batch_idx):
        if self.report and batch_idx % 10 == 0:
            train, val = self.trainer.train_dataloader, self.trainer.val_dataloaders
            seen = {
                "train_workers": train.num_workers,
                "train_batch": len(batch[0]),
                "val_workers": val.num_workers,
                "val_batch_size": val.batch_size,
            }
            with open(self.report, "w") as fh:
                json.dump(seen, fh)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


class Data(pl.LightningDataModule):
    def __init__(self, latency: float, workers: int, train_size: int, val_size: int) -> None:
        super().__init__()
        self.latency = latency
        self.workers = workers
        self.train_size, self.val_size = train_size, val_size

    def train_dataloader(self):
        return DataLoader(
            SlowTrain(self.train_size, self.latency),
            batch_size=8,
            shuffle=True,
            num_workers=self.workers,
        )

    def val_dataloader(self):
        return DataLoader(SlowVal(self.val_size, self.latency), batch_size=4, num_workers=0)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--latency", type=float, default=0.002)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--report", default="")
    p.add_argument("--max-epochs", type=int, default=1000)
    p.add_argument("--train-size", type=int, default=4096)
    p.add_argument("--val-size", type=int, default=64)
    # The loaders built here and given to trainer.fit, not by a DataModule's hooks.
    p.add_argument("--given-loader", action="store_true")
    args = p.parse_args()
    trainer = pl.Trainer(
        accelerator="cpu",
        devices=1,
        max_epochs=args.max_epochs,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    if args.given_loader:
        loader = DataLoader(
            SlowTrain(args.train_size, args.latency),
            batch_size=8,
            shuffle=True,
            num_workers=args.workers,
        )
        val = DataLoader(SlowVal(args.val_size, args.latency), batch_size=4, num_workers=0)
        trainer.fit(Boring(args.report), train_dataloaders=loader, val_dataloaders=val)
    else:
        data = Data(args.latency, args.workers, args.train_size, args.val_size)
        trainer.fit(Boring(args.report), datamodule=data)
