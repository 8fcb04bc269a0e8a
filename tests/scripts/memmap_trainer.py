"""A GPT-style trainer with no DataLoader: random windows of a np.memmap, forever."""

import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

if __name__ == "__main__":
    path = Path(tempfile.mkdtemp()) / "tokens.bin"
    np.arange(100_000, dtype=np.uint16).tofile(path)
    data = np.memmap(path, dtype=np.uint16, mode="r")
    model = torch.nn.Sequential(torch.nn.Embedding(1024, 16), torch.nn.Linear(16, 1024))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 10**9
    for _ in range(steps):
        ix = torch.randint(len(data) - 33, (8,))
        x = torch.stack([torch.from_numpy(data[i : i + 32].astype(np.int64) % 1024) for i in ix])
        loss = model(x[:, :-1]).flatten(0, 1).logsumexp(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
