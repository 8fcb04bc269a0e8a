"""torchrun-style DDP on CPU: gloo from the environment, DistributedSampler, slow samples.

--crash-rank R makes rank R raise at its 30th step; --hang-rank R makes it sleep there.
"""

import argparse
import os
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Slow(Dataset):
    def __init__(self, size: int, latency_s: float) -> None:
        self.size = size
        self.latency_s = latency_s

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int):
        time.sleep(self.latency_s)
        return torch.full((8,), float(i % 7)), torch.tensor(float(i % 2))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--latency", type=float, default=0.002)
    p.add_argument("--crash-rank", type=int, default=-1)
    p.add_argument("--hang-rank", type=int, default=-1)
    p.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: never)")
    args = p.parse_args()
    dist.init_process_group("gloo")  # RANK, WORLD_SIZE, MASTER_ADDR/PORT from the env
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = DistributedDataParallel(nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = Slow(4096, args.latency)
    loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data), num_workers=0)
    step = 0
    try:
        for epoch in range(1000):
            loader.sampler.set_epoch(epoch)
            for x, y in loader:
                step += 1
                if rank == args.crash_rank and step == 30:
                    raise RuntimeError(f"rank {rank} diverged at step {step}")
                if rank == args.hang_rank and step == 30:
                    time.sleep(3600)
                loss = nn.functional.mse_loss(model(x).squeeze(1), y)
                opt.zero_grad()
                loss.backward()  # an allreduce: ranks are in lock-step
                opt.step()
                if step == args.steps:
                    print(f"rank done: rank {rank}, {step} steps, workers {loader.num_workers}")
                    return
    finally:
        if os.environ.get("AUTOTUNE_TEST_DESTROY", "1") == "1" and dist.is_initialized():
            dist.destroy_process_group()


if __name__ == "__main__":
    main()
