import torch

if __name__ == "__main__":
    print("no data loading here", torch.ones(2).sum().item())
