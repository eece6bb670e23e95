"""The calibrated design of a comparison between installations: how many paired rounds a
verdict wants. Chosen from the calibration (results/versions/calibration/README.md: at 16 rounds
it found +15 % at 38 and 39 of 39 injected points, by two mechanisms, with no false change in
306 A/A points; at 10 rounds 46 and 47 of 52); docs/verdicts.md, "The default design".
`collrepro versions` runs this many rounds first, and `collrun --installations` and `collslurm`
over several installations at least this many unless told otherwise."""

ROUNDS = 16
