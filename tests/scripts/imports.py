"""Reports which heavy packages are loaded inside the probed process."""

import json
import sys

from tiny import Tiny, parser, step
from torch.utils.data import DataLoader

if __name__ == "__main__":
    args = parser().parse_args()
    loader = DataLoader(Tiny(64, 0.001), batch_size=8)
    for i, batch in enumerate(loader):
        step(batch)
        if i == 2:
            names = ["optuna", "sqlalchemy", "fastapi", "alembic", "typer", "rich", "autotune.api"]
            with open(args.report, "w") as fh:
                json.dump({n: n in sys.modules for n in names}, fh)
            break
