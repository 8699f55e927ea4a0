/*
 * parlot_names.h - which process this is, and what its files are called.
 *
 * A process's files are <dir>/<prefix>.<number>.info and
 * <dir>/<prefix>.<number>.<thread>. The number is the MPI rank when the
 * launcher says it (this project's choice; the rank makes runs comparable
 * without a manifest), else the process id as in the reference tool, whose
 * names are Hdbg.<version>.<host>.<pid>. The default prefix is the reference
 * tool's, Hdbg.17.<short host name>, so a reader that numbers processes by
 * ascending number gets rank order for free.
 *
 * Plain C99 plus getenv/gethostname; compiled into the Pin tool and tested.
 */
#ifndef PARLOT_NAMES_H
#define PARLOT_NAMES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* parlot_env_rank returns the rank the launcher gave this process, or -1.
 * It reads, in this order, OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK (MPICH,
 * Intel MPI), PMIX_RANK (PMIx launchers), SLURM_PROCID (srun) and
 * MV2_COMM_WORLD_RANK (MVAPICH2); the first one set to a plain decimal number
 * (0..2147483647) wins, and *var (if not NULL) is set to its name. Values that
 * are not such numbers are skipped. */
long parlot_env_rank(const char **var);

/* parlot_default_prefix writes "Hdbg.17.<host>" (host name up to its first
 * dot, "localhost" if unknown; '/' would make a path and becomes '_') into
 * buf. It returns 0, or -1 if buf is too small. */
int parlot_default_prefix(char *buf, size_t size);

/* parlot_path writes <dir>/<prefix>.<number>.<suffix> into buf (no "<dir>/"
 * when dir is empty). It returns 0, or -1 if buf is too small. */
int parlot_path(char *buf, size_t size, const char *dir, const char *prefix,
                long number, const char *suffix);

#ifdef __cplusplus
}
#endif

#endif
