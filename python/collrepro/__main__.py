"""`python3 -m collrepro VERB [ARGS...]`: the front door (frontdoor.py)."""
import sys

from collrepro.frontdoor import main

sys.exit(main())
