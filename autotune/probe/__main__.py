import sys

from autotune.probe import main

sys.exit(main(sys.argv[1:]))
