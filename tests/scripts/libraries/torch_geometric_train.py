"""PyG graph classification: ``torch_geometric.loader.DataLoader`` collates ``Data`` objects
into a ``Batch``; --prefetch wraps it in ``PrefetchLoader``, which stays one batch ahead."""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch, Data, Dataset
from torch_geometric.loader import DataLoader, PrefetchLoader
from torch_geometric.nn import GCNConv, global_mean_pool


class SlowGraphs(Dataset):
    """Small random graphs, each as costly to load as one read from disk."""

    def __init__(self, size: int, latency_s: float) -> None:
        super().__init__()  # no root: nothing to download or process
        self.size = size
        self.latency_s = latency_s

    def len(self) -> int:
        return self.size

    def get(self, idx: int) -> Data:
        time.sleep(self.latency_s)
        gen = torch.Generator().manual_seed(idx)
        nodes = 6 + idx % 5
        return Data(
            x=torch.randn(nodes, 8, generator=gen),
            edge_index=torch.randint(0, nodes, (2, 2 * nodes), generator=gen),
            y=torch.tensor([idx % 2]),
        )


class GCN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = GCNConv(8, 16)
        self.head = nn.Linear(16, 2)

    def forward(self, batch: Batch) -> torch.Tensor:
        h = F.relu(self.conv(batch.x, batch.edge_index))
        logits: torch.Tensor = self.head(global_mean_pool(h, batch.batch))
        return logits


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1000)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--latency", type=float, default=0.002)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--prefetch", action="store_true")
    args = p.parse_args()
    # A model this small gains nothing from intra-op threads; on a shared runner they spin
    # against the loader's workers, and the step, not the loading, would be measured.
    torch.set_num_threads(1)
    loader = DataLoader(
        SlowGraphs(args.size, args.latency), batch_size=16, shuffle=True, num_workers=args.workers
    )
    batches: Iterable[Batch] = PrefetchLoader(loader, device="cpu") if args.prefetch else loader
    model = GCN()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(args.epochs):
        for batch in batches:
            opt.zero_grad()
            loss = F.cross_entropy(model(batch), batch.y)
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
