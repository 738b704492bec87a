# Static types for the compiled build of encoding.py (Cython reads this file beside the source;
# the source stays the definition and runs unchanged without it).
cimport cython

@cython.locals(c=Py_ssize_t)
cdef void _write_counts(float[::1] mv, Py_ssize_t base, list counts, list values) except *

@cython.locals(n=Py_ssize_t, p=Py_ssize_t, r=Py_ssize_t, b=Py_ssize_t, c=Py_ssize_t, k=long)
cdef bint _write_rows(float[::1] mv, list rows, Py_ssize_t me, Py_ssize_t shift, Py_ssize_t base,
                      Py_ssize_t width, object count) except -1

@cython.locals(n=Py_ssize_t, T=Py_ssize_t, p=Py_ssize_t, row0=Py_ssize_t, fr=Py_ssize_t, wrote=bint, o=dict,
               lo=Py_ssize_t, hi=Py_ssize_t)
cdef void _encode_knowledge(state, Py_ssize_t me, buf, float[::1] mv) except *

@cython.locals(n=Py_ssize_t, T=Py_ssize_t, wrote=bint, o=dict)
cdef bint _encode_shadow(state, Py_ssize_t me, float[::1] mv) except -1

@cython.locals(o=dict, inv="double[::1]", slots=list, slot=list, where=list, last=Py_ssize_t, base=Py_ssize_t,
               T2=Py_ssize_t, k=Py_ssize_t, b=Py_ssize_t, c=Py_ssize_t, v=long, n=Py_ssize_t, wb=Py_ssize_t,
               p=Py_ssize_t, m=long)
cdef void _encode_generations(state, Py_ssize_t me, float[::1] mv) except *

@cython.locals(n=Py_ssize_t, j=Py_ssize_t, q=Py_ssize_t, base=Py_ssize_t, f=long, k=long, inv_total=double, o=dict)
cdef void _encode_rebuilt(state, Py_ssize_t me, float[::1] mv) except *

@cython.locals(mv=float[::1], n=Py_ssize_t, r=Py_ssize_t, p=Py_ssize_t, size=long, d0=long, d1=long,
               hs=Py_ssize_t, dp=Py_ssize_t, st=Py_ssize_t, am=Py_ssize_t, amo=Py_ssize_t, nk=Py_ssize_t,
               T=Py_ssize_t, pending=long, o=dict)
cpdef encode(state, Py_ssize_t me)
