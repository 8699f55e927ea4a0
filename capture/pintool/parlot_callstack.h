/*
 * parlot_callstack.h - call-stack correction by stack pointer.
 *
 * Pin cannot always see a function exit (a tail call jumps instead of
 * returning, a longjmp or exception unwinds many frames at once, optimised
 * code interleaves a callee with its caller). ParLOT therefore keeps its own
 * call stack of (function ID, stack pointer at entry) and repairs missed exits
 * from the stack pointer (ParLOT paper, section 3.4): the runtime stack grows
 * downwards, so a recorded frame whose stack pointer is not above the current
 * one has returned. The trace stays well nested: decoding it yields the real
 * call stack at every entry.
 *
 * The rules, with sp the stack pointer at the event (at a routine's first
 * instruction and at its return instruction it points at the return address,
 * the same value for both):
 *   entry: pop (and emit an exit for) every frame with frame.sp <= sp, then
 *          push (id, sp) and emit id. Equal counts as returned: a tail call
 *          replaces its caller at the same stack pointer.
 *   exit:  pop (and emit an exit for) every frame with frame.sp < sp; then if
 *          the top frame has frame.sp == sp it is the function returning: pop
 *          it and emit an exit. Otherwise (no frame is left, or the top
 *          frame's sp is higher: the returning function was entered deeper
 *          than any recorded frame, e.g. before tracing began) the exit
 *          matches no recorded entry and emits nothing, so a trace never has
 *          more exits than entries.
 *
 * Best effort, as in the paper: code that switches stacks (sigaltstack
 * handlers, user-level threads) or functions that keep no return address on
 * the stack can make the repaired stack differ from the real one for a while.
 *
 * Plain C99; compiled into the Pin tool and tested on synthetic event streams.
 */
#ifndef PARLOT_CALLSTACK_H
#define PARLOT_CALLSTACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct parlot_frame {
    uintptr_t sp;
    uint16_t id;
} parlot_frame;

typedef struct parlot_callstack {
    parlot_frame *frames;
    size_t depth, cap;
} parlot_callstack;

void parlot_callstack_init(parlot_callstack *s);
void parlot_callstack_free(parlot_callstack *s);

/* parlot_callstack_enter records the entry of function id at stack pointer
 * sp. It returns the number of missed exits to emit before id, or -1 if the
 * stack could not grow (out of memory; nothing was changed). */
long parlot_callstack_enter(parlot_callstack *s, uint16_t id, uintptr_t sp);

/* parlot_callstack_exit records a function exit at stack pointer sp and
 * returns the number of exits to emit (missed ones plus this one), possibly 0. */
long parlot_callstack_exit(parlot_callstack *s, uintptr_t sp);

#ifdef __cplusplus
}
#endif

#endif
