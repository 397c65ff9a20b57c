"""`python -m ragstream ...` is the `ragstream` command."""
import sys

from ragstream.cli import main

sys.exit(main())
