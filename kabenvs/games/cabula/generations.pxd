# Static types for the compiled build of generations.py (Cython reads this file beside the source;
# the source stays the definition and runs unchanged without it). The updates run for every
# viewer at every card played or drawn. They stay callable from Python (cpdef): rules.py calls
# them through the module, so a test can still replace one.
cimport cython

@cython.locals(tx=Py_ssize_t, k=Py_ssize_t, several=bint, slot=list, first=list)
cdef void _attribute(list slots, long mask, Py_ssize_t x) except *

@cython.locals(n=Py_ssize_t, v=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, where=list, slots=list)
cpdef void seen_leave(s, Py_ssize_t p, Py_ssize_t x, Py_ssize_t k, Py_ssize_t size_after) except *

@cython.locals(n=Py_ssize_t, i=Py_ssize_t, bit=long, where=list, cur=list)
cpdef void drew(s, Py_ssize_t p, Py_ssize_t c) except *
