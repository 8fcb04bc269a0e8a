"""A trainer with no DataLoader and no np.memmap: random rows of an in-memory tensor, forever.
numpy is loaded (torch imports it), but nothing here is a memmap."""

import torch

if __name__ == "__main__":
    data = torch.randn(10_000, 16)
    model = torch.nn.Linear(16, 1)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    while True:
        x = data[torch.randint(len(data), (8,))]
        loss = model(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
