"""Fails its own argument check before it builds or iterates any DataLoader."""

import sys

import torch

if __name__ == "__main__":
    if "--code" in sys.argv:
        sys.exit(3)
    torch.ones(1)
    sys.exit("data directory /nonexistent not found")
