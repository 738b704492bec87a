# Static types for the compiled build of encoding.py (Cython reads this file beside the source;
# the source stays the definition and runs unchanged without it). The observation's item stores go
# through a typed buffer (float[::1]) instead of a Python memoryview, and the block offsets and
# loop counters are C integers.
cimport cython

@cython.locals(fv="float[::1]", n=Py_ssize_t, nch=Py_ssize_t, nht=Py_ssize_t, i=Py_ssize_t, c=Py_ssize_t,
               t0=Py_ssize_t, h0=Py_ssize_t, kh0=Py_ssize_t, mt0=Py_ssize_t, mc0=Py_ssize_t, p0=Py_ssize_t,
               fk=Py_ssize_t, f0=Py_ssize_t, m0=Py_ssize_t, bx0=Py_ssize_t, s0=Py_ssize_t, c0=Py_ssize_t,
               pts=Py_ssize_t, ct0=Py_ssize_t, last=Py_ssize_t, row=Py_ssize_t, di=Py_ssize_t,
               sc0=Py_ssize_t, side=Py_ssize_t, on_combat=long, on_die=long, v=long, m=long, q=Py_ssize_t,
               an0=Py_ssize_t, a0=Py_ssize_t, na=Py_ssize_t, aw=Py_ssize_t, dw=Py_ssize_t, cul0=Py_ssize_t,
               card0=Py_ssize_t, target0=Py_ssize_t, window=Py_ssize_t, det=Py_ssize_t, pm=Py_ssize_t,
               hp0=Py_ssize_t)
cpdef encode(state, Py_ssize_t player)
