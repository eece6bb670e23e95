"""`collrepro-py reproduce`: a verdict for each paper figure the project regenerates, against the
committed archive and against the paper's own claims (configs/paper/claims.yaml), with the
model's validity beside it (docs/reproduce.md). python/collrepro/analysis/figures/claims.py reads the claims, judge.py decides
(pure), data.py reads result sets into points, cli.py is the command."""
