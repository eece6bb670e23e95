import sys

from ..safeio import main_exit
from .cli import main

main_exit("collmpi", main, sys.argv[1:])
