"""The plain loop in a study's first probe; every later probe blocks until it is killed.

Probes announce themselves in the folder $AUTOTUNE_TEST_GATE: the first creates ``first``
(atomically, so exactly one probe is first); any later one creates ``blocked`` once its loader
has delivered a batch, then waits forever. A test that sees ``blocked`` knows a probe is in
flight that cannot end on its own, so neither can the search: a Ctrl-C it sends then cannot
race the search's stop rules.
"""

import os
import time
from pathlib import Path

from tiny import Tiny, parser, step
from torch.utils.data import DataLoader

GATE_ENV = "AUTOTUNE_TEST_GATE"

if __name__ == "__main__":
    args = parser().parse_args()
    gate = Path(os.environ[GATE_ENV])
    try:
        (gate / "first").open("x").close()
        first = True
    except FileExistsError:
        first = False
    loader = DataLoader(
        Tiny(args.size, args.latency), batch_size=8, shuffle=True, num_workers=args.workers
    )
    for _ in range(args.epochs):
        for batch in loader:
            step(batch)
            if not first:
                (gate / "blocked").touch()
                while True:  # until the tuner kills this probe's process group
                    time.sleep(3600)
