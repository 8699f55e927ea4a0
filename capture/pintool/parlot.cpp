/*
 * parlot.cpp - this project's ParLOT-compatible Pin tool.
 *
 * It records every function entry and exit of every thread of a process as
 * ParLOT traces (ParLOT paper, section 3): a 16-bit function ID at each entry,
 * 0 at each exit, repaired with the stack pointer where Pin misses an exit
 * (section 3.4, parlot_callstack.h) and compressed on the fly with the
 * incremental LZa3|ZE compressor (sections 3.2-3.3, parlot_compress.h).
 *
 *   pin -t obj-intel64/parlot.so [-o DIR] [-prefix P] [-rank N]
 *       [-all_images 1] [-flush_ms MS] -- ./app args
 *
 * writes DIR/<prefix>.<number>.info (the function table, parlot_info.h) and
 * DIR/<prefix>.<number>.<thread> for every thread (0 = main thread, then
 * creation order). <number> is the MPI rank from the launcher's environment
 * (or -rank), else the process id (parlot_names.h).
 *
 * Modes: by default only the routines of the main executable are traced
 * (ParLOT(M)); calls into libraries show up as their PLT stubs
 * ("MPI_Send@plt"), whose missing exits the stack-pointer correction adds.
 * -all_images 1 traces the routines of every image (ParLOT(A)).
 *
 * A killed process keeps its traces: every write leaves a complete file
 * (parlot_trace.h), an internal thread writes every thread's trace every
 * -flush_ms milliseconds (so even SIGKILL loses at most that much), a
 * terminating signal (SIGTERM, SIGINT, SIGABRT, SIGHUP, SIGQUIT, or any
 * signal that kills the process) writes them at once, and thread and process
 * exit close them.
 *
 * Everything but the Pin glue in this file is plain C that the project's tests
 * compile and check without Pin (capture/pintool_test.go).
 */
#include "pin.H"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "parlot_callstack.h"
#include "parlot_compress.h"
#include "parlot_info.h"
#include "parlot_names.h"
#include "parlot_trace.h"

/* ------------------------------------------------------------------ knobs */

static KNOB<std::string> KnobDir(KNOB_MODE_WRITEONCE, "pintool", "o", ".",
                                 "directory for the trace files (must exist)");
static KNOB<std::string> KnobPrefix(KNOB_MODE_WRITEONCE, "pintool", "prefix", "",
                                    "file name prefix (default Hdbg.17.<host>)");
static KNOB<INT32> KnobRank(KNOB_MODE_WRITEONCE, "pintool", "rank", "-1",
                            "number in the file names; -1: the MPI rank from the "
                            "launcher's environment, else the process id");
static KNOB<BOOL> KnobAllImages(KNOB_MODE_WRITEONCE, "pintool", "all_images", "0",
                                "1: trace the routines of every image (ParLOT(A)); "
                                "0: only the main executable (ParLOT(M))");
static KNOB<UINT32> KnobFlushMs(KNOB_MODE_WRITEONCE, "pintool", "flush_ms", "200",
                                "write every thread's trace this often, in ms "
                                "(0: only when a buffer fills)");

/* ------------------------------------------------------------------ state */

/* Traces are numbered by thread creation; a trace is never freed while the
 * process runs, so the flusher and signal paths may look at any of them. */
static const UINT32 MaxTraces = 65536;
static parlot_trace *g_all[MaxTraces];
static UINT32 g_thread[MaxTraces]; /* its thread number (file suffix) */
static BOOL g_reported[MaxTraces]; /* its write error was printed */
static UINT32 g_count;             /* traces in g_all, published with release */
static UINT32 g_nextThread;        /* the next thread number */
static parlot_trace *g_byPin[PIN_MAX_THREADS]; /* by Pin's THREADID */

static PIN_LOCK g_lock; /* thread start, image load */
static parlot_info g_info;
static unsigned g_infoSkipped; /* skipped routines already reported */
static std::string g_dir, g_prefix;
static long g_number;

static volatile BOOL g_stop;
static BOOL g_haveFlusher;
static PIN_THREAD_UID g_flusherUid;
static BOOL g_child; /* this is a forked child: record nothing */

/* --------------------------------------------------------------- analysis */

static VOID PIN_FAST_ANALYSIS_CALL OnEntry(THREADID tid, UINT32 id, ADDRINT sp)
{
    parlot_trace *t = g_byPin[tid];
    if (t != NULL)
        parlot_trace_enter(t, (uint16_t)id, (uintptr_t)sp);
}

static VOID PIN_FAST_ANALYSIS_CALL OnExit(THREADID tid, ADDRINT sp)
{
    parlot_trace *t = g_byPin[tid];
    if (t != NULL)
        parlot_trace_exit(t, (uintptr_t)sp);
}

/* ---------------------------------------------------------------- helpers */

static VOID Report(UINT32 i, int err)
{
    if (err == 0 || err == -1 || g_reported[i])
        return;
    g_reported[i] = TRUE;
    fprintf(stderr,
            "parlot: trace %s.%ld.%u in %s: %s; it keeps the events written before\n",
            g_prefix.c_str(), g_number, g_thread[i], g_dir.c_str(), strerror(err));
}

/* SyncAll writes every thread's trace. It never waits long for a trace's
 * lock: a trace whose thread is in the middle of an event (or was killed
 * there) is skipped, and the next round writes it. */
static VOID SyncAll(unsigned spins)
{
    UINT32 n = __atomic_load_n(&g_count, __ATOMIC_ACQUIRE);
    for (UINT32 i = 0; i < n; i++)
        Report(i, parlot_trace_try_sync(g_all[i], spins));
}

/* ---------------------------------------------------------- instrumenting */

static VOID ImageLoad(IMG img, VOID *v)
{
    if (g_child || (!KnobAllImages.Value() && !IMG_IsMainExecutable(img)))
        return;
    PIN_GetLock(&g_lock, 0);
    parlot_info_begin(&g_info, IMG_Name(img).c_str());
    for (SEC sec = IMG_SecHead(img); SEC_Valid(sec); sec = SEC_Next(sec)) {
        for (RTN rtn = SEC_RtnHead(sec); RTN_Valid(rtn); rtn = RTN_Next(rtn)) {
            UINT32 id = parlot_info_add(&g_info, RTN_Name(rtn).c_str());
            if (id == 0)
                continue;
            RTN_Open(rtn);
            /* At the first instruction and at every return the stack pointer
             * points at the return address: the same value for both. */
            RTN_InsertCall(rtn, IPOINT_BEFORE, (AFUNPTR)OnEntry, IARG_FAST_ANALYSIS_CALL,
                           IARG_THREAD_ID, IARG_UINT32, id, IARG_REG_VALUE, REG_STACK_PTR,
                           IARG_END);
            for (INS ins = RTN_InsHead(rtn); INS_Valid(ins); ins = INS_Next(ins)) {
                if (INS_IsRet(ins))
                    INS_InsertCall(ins, IPOINT_BEFORE, (AFUNPTR)OnExit, IARG_FAST_ANALYSIS_CALL,
                                   IARG_THREAD_ID, IARG_REG_VALUE, REG_STACK_PTR, IARG_END);
            }
            RTN_Close(rtn);
        }
    }
    int err = parlot_info_end(&g_info);
    if (err != 0)
        fprintf(stderr, "parlot: writing the function table %s.%ld.info in %s: %s\n",
                g_prefix.c_str(), g_number, g_dir.c_str(), strerror(err));
    if (g_info.skipped > g_infoSkipped) {
        fprintf(stderr,
                "parlot: %u routines (from %s on) are not traced: all %u function IDs are taken\n",
                g_info.skipped - g_infoSkipped, IMG_Name(img).c_str(), PARLOT_MAX_ID);
        g_infoSkipped = g_info.skipped;
    }
    PIN_ReleaseLock(&g_lock);
}

/* -------------------------------------------------------------- callbacks */

static VOID ThreadStart(THREADID tid, CONTEXT *ctxt, INT32 flags, VOID *v)
{
    if (g_child)
        return;
    PIN_GetLock(&g_lock, tid + 1);
    UINT32 thread = g_nextThread++;
    UINT32 n = g_count;
    char path[4096], suffix[16];
    snprintf(suffix, sizeof suffix, "%u", thread);
    if (n >= MaxTraces) {
        fprintf(stderr, "parlot: thread %u is not traced: more than %u threads\n", thread,
                MaxTraces);
    } else if (parlot_path(path, sizeof path, g_dir.c_str(), g_prefix.c_str(), g_number,
                           suffix) != 0) {
        fprintf(stderr, "parlot: thread %u is not traced: path too long\n", thread);
    } else {
        int err = 0;
        parlot_trace *t = parlot_trace_create(path, &err);
        if (t == NULL) {
            fprintf(stderr, "parlot: thread %u is not traced: %s: %s\n", thread, path,
                    strerror(err));
        } else {
            g_all[n] = t;
            g_thread[n] = thread;
            __atomic_store_n(&g_count, n + 1, __ATOMIC_RELEASE);
            g_byPin[tid] = t;
        }
    }
    PIN_ReleaseLock(&g_lock);
}

static VOID ThreadFini(THREADID tid, const CONTEXT *ctxt, INT32 code, VOID *v)
{
    parlot_trace *t = g_byPin[tid];
    if (t == NULL)
        return;
    g_byPin[tid] = NULL;
    /* Normally called by the exiting thread itself, whose lock is free;
     * at process exit Pin may call it for threads already gone. */
    int err = parlot_trace_close_try(t, 1u << 22);
    UINT32 n = __atomic_load_n(&g_count, __ATOMIC_ACQUIRE);
    for (UINT32 i = 0; i < n; i++)
        if (g_all[i] == t)
            Report(i, err);
}

static VOID ContextChange(THREADID tid, CONTEXT_CHANGE_REASON reason, const CONTEXT *from,
                          CONTEXT *to, INT32 sig, VOID *v)
{
    if (g_child)
        return;
    if (reason == CONTEXT_CHANGE_REASON_FATALSIGNAL ||
        (reason == CONTEXT_CHANGE_REASON_SIGNAL &&
         (sig == SIGTERM || sig == SIGINT || sig == SIGABRT || sig == SIGHUP ||
          sig == SIGQUIT)))
        SyncAll(1u << 20);
}

static VOID ForkChild(THREADID tid, const CONTEXT *ctxt, VOID *v)
{
    /* The child's copies of the files belong to the parent. */
    g_child = TRUE;
    g_haveFlusher = FALSE;
    UINT32 n = __atomic_load_n(&g_count, __ATOMIC_ACQUIRE);
    for (UINT32 i = 0; i < n; i++)
        parlot_trace_detach(g_all[i]);
    for (UINT32 i = 0; i < PIN_MAX_THREADS; i++)
        g_byPin[i] = NULL;
    if (g_info.fd >= 0) {
        close(g_info.fd);
        g_info.fd = -1;
    }
}

static VOID Flusher(VOID *arg)
{
    UINT32 every = KnobFlushMs.Value(), step = every < 10 ? every : 10, waited = 0;
    while (!g_stop && !PIN_IsProcessExiting()) {
        PIN_Sleep(step);
        waited += step;
        if (waited >= every) {
            waited = 0;
            SyncAll(1u << 16);
        }
    }
    PIN_ExitThread(0);
}

static VOID PrepareForFini(VOID *v)
{
    g_stop = TRUE;
    if (g_haveFlusher)
        PIN_WaitForThreadTermination(g_flusherUid, 2000, NULL);
}

static VOID Fini(INT32 code, VOID *v)
{
    if (g_child)
        return;
    /* The other threads are gone or stopped; a lock still taken belongs to
     * a thread that died inside an event, and is broken after a while. */
    UINT32 n = __atomic_load_n(&g_count, __ATOMIC_ACQUIRE);
    for (UINT32 i = 0; i < n; i++)
        Report(i, parlot_trace_close_try(g_all[i], 1u << 22));
    int err = parlot_info_close(&g_info);
    if (err != 0)
        fprintf(stderr, "parlot: function table %s.%ld.info in %s: %s\n", g_prefix.c_str(),
                g_number, g_dir.c_str(), strerror(err));
}

/* ------------------------------------------------------------------- main */

int main(int argc, char *argv[])
{
    PIN_InitSymbols();
    if (PIN_Init(argc, argv)) {
        fprintf(stderr, "parlot: records ParLOT function-call traces.\n%s\n",
                KNOB_BASE::StringKnobSummary().c_str());
        return 1;
    }

    g_dir = KnobDir.Value();
    g_prefix = KnobPrefix.Value();
    if (g_prefix.empty()) {
        char buf[512];
        if (parlot_default_prefix(buf, sizeof buf) != 0) {
            fprintf(stderr, "parlot: host name too long for a file name\n");
            return 1;
        }
        g_prefix = buf;
    }
    if (KnobRank.Value() >= 0)
        g_number = KnobRank.Value();
    else if ((g_number = parlot_env_rank(NULL)) < 0)
        g_number = PIN_GetPid();

    char path[4096];
    if (parlot_path(path, sizeof path, g_dir.c_str(), g_prefix.c_str(), g_number, "info") != 0) {
        fprintf(stderr, "parlot: output path too long\n");
        return 1;
    }
    int err = parlot_info_create(&g_info, path);
    if (err != 0) {
        fprintf(stderr, "parlot: cannot create %s: %s (does the directory -o %s exist?)\n",
                path, strerror(err), g_dir.c_str());
        return 1;
    }

    PIN_InitLock(&g_lock);
    IMG_AddInstrumentFunction(ImageLoad, 0);
    PIN_AddThreadStartFunction(ThreadStart, 0);
    PIN_AddThreadFiniFunction(ThreadFini, 0);
    PIN_AddContextChangeFunction(ContextChange, 0);
    PIN_AddForkFunction(FPOINT_AFTER_IN_CHILD, ForkChild, 0);
    PIN_AddPrepareForFiniFunction(PrepareForFini, 0);
    PIN_AddFiniFunction(Fini, 0);

    if (KnobFlushMs.Value() > 0) {
        THREADID it = PIN_SpawnInternalThread(Flusher, NULL, 0, &g_flusherUid);
        g_haveFlusher = it != INVALID_THREADID;
        if (!g_haveFlusher)
            fprintf(stderr, "parlot: no flusher thread: traces are written only when "
                            "buffers fill and at exit or on a terminating signal\n");
    }

    PIN_StartProgram(); /* never returns */
    return 0;
}
