"""Workers that come up one after another (worker k is ready k x --stagger seconds late)."""

import time

from tiny import Tiny, parser, step
from torch.utils.data import DataLoader


def main() -> None:
    p = parser()
    p.add_argument("--stagger", type=float, default=0.25)
    args = p.parse_args()

    def late_start(worker_id: int) -> None:
        time.sleep(worker_id * args.stagger)

    loader = DataLoader(
        Tiny(100_000, latency_s=0.01),
        batch_size=4,
        num_workers=args.workers,
        worker_init_fn=late_start,
        persistent_workers=True,
    )
    for _ in range(args.epochs):
        for batch in loader:
            step(batch)


if __name__ == "__main__":
    main()
