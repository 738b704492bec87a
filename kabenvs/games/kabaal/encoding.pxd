# Static types for the compiled build of encoding.py (Cython reads this file beside the source;
# the source stays the definition and runs unchanged without it). The Encoder becomes an
# extension type, so its block offsets are C integers read from the object itself, and the
# observation's item stores go through typed buffers (float[::1]) instead of Python memoryviews.
cimport cython

cdef class Encoder:
    cdef public object lay, pass_ids, phase_index, rel, board_table, void_table
    cdef public object board_run, count_values, log_run, record_blocks
    cdef public Py_ssize_t n, max_rounds
    cdef public Py_ssize_t to_move, phase, hidden, passing, passes_chosen, received, face_up, revealed
    cdef public Py_ssize_t hand_size, trick, leader, played, leaders, winners, forced, voids
    cdef public Py_ssize_t tricks_played, board, face_down, supply, altar, tricks_won, amulet, actor
    cdef public Py_ssize_t pusher, colours_used, pity, push_cultist, push_from, to_push, move_target
    cdef public Py_ssize_t flip_line, flips_pending, last_move, last_mover, round, start_board
    cdef public Py_ssize_t start_down, mv_who, mv_kind, mv_cult, mv_from, mv_to, mv_forced, mv_part

    @cython.locals(n=Py_ssize_t, C=Py_ssize_t, V=Py_ssize_t, rel=list, table=list, mv="float[::1]",
                   o=Py_ssize_t, k=Py_ssize_t, p=Py_ssize_t, r=Py_ssize_t, passing=Py_ssize_t,
                   c=Py_ssize_t, winners=list, led=Py_ssize_t, t=Py_ssize_t, seat=Py_ssize_t,
                   a=Py_ssize_t, q=Py_ssize_t, mover=Py_ssize_t, action=Py_ssize_t,
                   size_of=list, supply_of=list, altar_of=list, won_of=list, passes_of=list)
    cpdef encode(self, s, Py_ssize_t me)

    @cython.locals(vec="float[::1]", n=Py_ssize_t, a=Py_ssize_t, row=Py_ssize_t, r=Py_ssize_t,
                   down=Py_ssize_t, d=object)
    cpdef _update_board(self, memo, list board, list face_down, list table)

    @cython.locals(mv="float[::1]", n=Py_ssize_t, C=Py_ssize_t, p=Py_ssize_t, done=Py_ssize_t,
                   r=Py_ssize_t, o=Py_ssize_t, t=Py_ssize_t, k=Py_ssize_t, winners=list, cards=list,
                   forced=list, revealed=list)
    cpdef _round_record(self, s, memo, list rel)

    @cython.locals(vec="float[::1]", done=Py_ssize_t, n=Py_ssize_t, A=Py_ssize_t, K=Py_ssize_t,
                   base=Py_ssize_t, who=Py_ssize_t, kind=Py_ssize_t, cult=Py_ssize_t, src=Py_ssize_t,
                   dst=Py_ssize_t, forced_at=Py_ssize_t, part_at=Py_ssize_t, i=Py_ssize_t,
                   p=Py_ssize_t, k=Py_ssize_t, q=Py_ssize_t, a=Py_ssize_t, b=Py_ssize_t, part=Py_ssize_t,
                   log=list)
    cpdef _log_vector(self, s, memo, list table, list rel)
