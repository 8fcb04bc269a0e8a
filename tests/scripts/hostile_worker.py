"""A training script whose DataLoader workers raise errors full of text that is hostile to
whatever shows it: rich markup, gloo's bracketed paths, HTML and a script tag, ANSI escapes,
bytes that are not UTF-8, NUL, and a 5,000-character line.

With no workers (the script as written) it loads in the main process and trains; with any,
every worker raises at its first sample, so a search measures the script as written and
every worker count fails.

Like a script that prints undecodable file names as their own bytes, it writes its output
with "surrogateescape": the traceback of its error then carries raw non-UTF-8 bytes.
The dataset's class has a hostile name too.
"""

import sys

import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

# The first line of the error: what a failure reason quotes.
FIRST = (
    "[bold]x[/] [/__w/a/pair.cc:553] <script>alert(1)</script> <img src=x onerror=alert(2)> "
    "\x1b[31mred\x1b[0m bytes:\udcff\udcfe nul:\x00 :x: "
)
LONG = "L" * 5000
# The lines after it: the end of the output the trial keeps.
MORE = "second <b>line</b> \x1b]0;title\x07\x1b[2J [red]not red[/red]"

for stream in (sys.stdout, sys.stderr):
    stream.reconfigure(errors="surrogateescape")


def _get(self: Dataset, i: int) -> torch.Tensor:
    if get_worker_info() is not None:
        raise ValueError(f"{FIRST}{LONG}\n{MORE}")
    return torch.full((16,), float(i))


# A class name is text from the script too: rich reads "[/...]" in it as a closing tag.
Samples = type(
    "Samples[/__w/b/pair.cc:9]<i>x</i>",
    (Dataset,),
    {"__getitem__": _get, "__len__": lambda self: 4096},
)


if __name__ == "__main__":
    loader = DataLoader(Samples(), batch_size=32, num_workers=0)
    for _ in range(1000):
        for batch in loader:
            (batch * 2).sum().item()
