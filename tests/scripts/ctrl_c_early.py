"""Ctrl-C as a terminal sends it (SIGINT to the whole foreground group) before the script
iterates its DataLoader: the training ends on KeyboardInterrupt with its loader never used."""

import os
import signal
import threading

import torch
from torch.utils.data import DataLoader

loader = DataLoader(torch.arange(64), batch_size=4)
os.killpg(0, signal.SIGINT)
threading.Event().wait(60)  # KeyboardInterrupt lands here, before the loop
for batch in loader:
    batch.sum().item()
print("the loop ran")
