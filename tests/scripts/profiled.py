"""A script that records its own torch.profiler trace around its loop, exported on the way out
(a probe ends the loop with its own exception, so the export sits in ``finally``)."""

from tiny import Tiny, parser, step
from torch.profiler import ProfilerActivity, profile
from torch.utils.data import DataLoader

if __name__ == "__main__":
    p = parser()
    p.add_argument("--trace", required=True)
    args = p.parse_args()
    loader = DataLoader(Tiny(args.size, args.latency), batch_size=8, num_workers=args.workers)
    prof = profile(activities=[ProfilerActivity.CPU])
    prof.start()
    try:
        for _ in range(args.epochs):
            for batch in loader:
                step(batch)
    finally:
        prof.stop()
        prof.export_chrome_trace(args.trace)
