"""`python -m ragstream.cli ...` is the `ragstream` command."""
import sys

from ragstream.cli import main

sys.exit(main())
