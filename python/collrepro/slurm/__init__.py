"""collslurm: a collbench experiment as Slurm job arrays (slurm/collslurm is the command).

plan        the pure part: tasks, slices, file names, the `slurm:` settings
experiment  one experiment for one MPI library: config, settings, collbench's point list
submit      the batch script and the Slurm commands (sbatch, squeue, sacct, scontrol)
state       submission records, result files on disk, the state of every task
cli         the command line: plan, submit, status, collect, resubmit
task        one array task, run by the batch script
"""
