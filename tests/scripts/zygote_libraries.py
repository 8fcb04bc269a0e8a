"""Records, as a JSON line in the file its first argument names, which of the modules it is
about to import were loaded before its first line: yaml (an installed library) and
zygote_own (its own module, beside it)."""

import json
import os
import sys

seen = {"ppid": os.getppid(), "yaml": "yaml" in sys.modules, "own": "zygote_own" in sys.modules}

import yaml  # noqa: E402
import zygote_own  # noqa: E402

with open(sys.argv[1], "a") as fh:
    fh.write(json.dumps({**seen, "loaded": bool(yaml.__version__ and zygote_own.NAME)}) + "\n")
