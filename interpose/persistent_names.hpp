// The names of the persistent collectives' entry points, as the build found them by compiling
// against the MPI library's headers (interpose/CMakeLists.txt, never by the library's name): a
// source that exports some is compiled with COLLREPRO_HAVE_PMPI_INIT (MPI-4: MPI_..._init) and
// COLLREPRO_HAVE_PMPIX_INIT (Open MPI 4.1's pcollreq extension, mpi-ext.h: MPIX_..._init) set for
// its own calls. COLLREPRO_PERSISTENT(name) is the name the library exports,
// COLLREPRO_LIBRARY(name) the MPI library's profiling entry it falls back to, COLLREPRO_TEXT(x)
// the name as text; with neither, COLLREPRO_PERSISTENT stays undefined and the source exports
// nothing.
#pragma once

#include <mpi.h>

#if COLLREPRO_HAVE_PMPIX_INIT && !COLLREPRO_HAVE_PMPI_INIT
#include <mpi-ext.h>
#endif

#if COLLREPRO_HAVE_PMPI_INIT
#define COLLREPRO_PERSISTENT(name) MPI_##name
#define COLLREPRO_LIBRARY(name) PMPI_##name
#elif COLLREPRO_HAVE_PMPIX_INIT
#define COLLREPRO_PERSISTENT(name) MPIX_##name
#define COLLREPRO_LIBRARY(name) PMPIX_##name
#endif

#define COLLREPRO_TEXT_INNER(x) #x
#define COLLREPRO_TEXT(x) COLLREPRO_TEXT_INNER(x)
