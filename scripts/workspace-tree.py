#!/usr/bin/env python3
"""Writes a workspace of many small Markdown files (stdlib only), for the workspace rows of
scripts/bench-side-by-side and for measuring `mcpdeck workspace-server` by hand.

Usage: workspace-tree.py [--files N] [DIR]

Writes N files (default 100,000) as DIR/dNNNN/nNN.md, 100 to a directory, each a short note of
about 330 bytes with two headings, a sentence naming its component (`component K`, K = i mod 97)
and a relative link to the next note. Every file and directory is dated an hour back, as a
settled checkout is. Without DIR it makes a new temporary directory. Prints the directory.
"""

import os
import sys
import tempfile
import time

BODY = (
    "# Note {i}\n\nThis note describes topic {i} and module {m}. Configuration for component {m} "
    "lives beside it.\n\n## Details\n\nEach component has settings, defaults and a history of "
    "changes number {i}.\n\nSee [next](n{n:02}.md).\n"
)


def main() -> int:
    argv = sys.argv[1:]
    files = 100_000
    if len(argv) >= 2 and argv[0] == "--files":
        files, argv = int(argv[1]), argv[2:]
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[0] if argv else tempfile.mkdtemp(prefix="mcpdeck-ws-")
    os.makedirs(root, exist_ok=True)
    old = time.time() - 3600
    for d in range((files + 99) // 100):
        folder = os.path.join(root, f"d{d:04}")
        os.makedirs(folder, exist_ok=True)
        for f in range(min(100, files - d * 100)):
            i = d * 100 + f
            path = os.path.join(folder, f"n{f:02}.md")
            with open(path, "w") as out:
                out.write(BODY.format(i=i, m=i % 97, n=(f + 1) % 100))
            os.utime(path, (old, old))
        os.utime(folder, (old, old))
    os.utime(root, (old, old))
    print(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
