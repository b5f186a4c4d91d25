"""``python -m rankeval_tui`` is the same as the ``rankeval-tui`` console script."""

from rankeval_tui.cli import main

raise SystemExit(main())
