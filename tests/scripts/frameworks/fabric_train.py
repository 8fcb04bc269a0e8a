"""Lightning Fabric: the script builds its DataLoader and hands it to
``fabric.setup_dataloaders``, whose wrapper iterates it. Lightning (the Trainer included) is
imported, but no Trainer runs."""

import sys

import lightning as L
import torch
from _slow import SlowTrain
from torch.utils.data import DataLoader

if __name__ == "__main__":
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    fabric = L.Fabric(accelerator="cpu", devices=1)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    model, opt = fabric.setup(model, opt)
    loader = fabric.setup_dataloaders(DataLoader(SlowTrain(size=1024), batch_size=8))
    for _ in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x).squeeze(-1), y)
            opt.zero_grad()
            fabric.backward(loss)
            opt.step()
