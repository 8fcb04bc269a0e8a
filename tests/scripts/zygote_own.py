"""A module of the script's own, beside it: never preloaded by the zygote."""

NAME = "zygote_own"
