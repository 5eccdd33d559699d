"""``python -m planmode …`` is the ``planmode`` command."""

from planmode.cli import main

raise SystemExit(main())
