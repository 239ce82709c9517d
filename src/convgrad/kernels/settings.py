"""The Numba backend's settings: what was tuned to one machine, in one place.

The values were measured on the 2-core build machine (benchmarks/RESULTS.md
says how); another machine may want others. Read and set them on the
backend's object::

    s = convgrad.backend.get("numba").load().settings
    s.min_work = 1 << 20    # send smaller convs to the pipeline
    s.threads = 1           # numba's thread count (NUMBA_NUM_THREADS)

:attr:`Settings.min_work` is the backend's own: the threshold of its
forwards (``backend.Backend.forward``). The others are the drivers' module
constants, which they read at each call (``conv_fast``, ``winograd``,
``pool_threads``, ``_jit``): a setting here reads and writes that constant,
so a value set either way is the one that runs. No environment variable
beyond numba's own ``NUMBA_NUM_THREADS``.
"""

from __future__ import annotations

from types import ModuleType

from . import _jit, conv_fast, pool_threads
from . import winograd as _winograd


class _Constant:
    """A setting kept as a module's constant, which its code reads."""

    def __init__(self, module: ModuleType, name: str, doc: str) -> None:
        self.module, self.name, self.__doc__ = module, name, doc

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return getattr(self.module, self.name)

    def __set__(self, obj, value) -> None:
        setattr(self.module, self.name, value)

    def __repr__(self) -> str:
        return f"{self.module.__name__}.{self.name}"


class Settings:
    """The Numba backend's machine-tuned settings (one object,
    :data:`SETTINGS`)."""

    #: multiply-adds (forward) below which a conv keeps the textbook
    #: forward: the backend hands no forward of its own (``backend.forward``).
    #: On lesson 9's digits CNN (convs of 0.3M and 2.4M multiply-adds, 4x4
    #: and 8x8 planes) the pipeline made training 1.2-1.4x slower: im2row's
    #: loop set-up per 4-pixel run, and the saved ``x`` being fingerprinted
    #: (function.py) where the textbook forward saves its own ``col``.
    min_work: int = 1 << 23

    thread_min_work = _Constant(conv_fast, "THREAD_MIN_WORK", """multiply-adds
        a pipeline call must hold before it is split over threads (images)""")
    block_bytes = _Constant(conv_fast, "BLOCK_BYTES", """bytes of one
        block's pixel-major rows (one core's L2 here, 1 MiB: half of it)""")
    winograd = _Constant(conv_fast, "WINOGRAD", """run 3×3 stride-1 float32
        convs through Winograd's F(2×2, 3×3) (False: the direct GEMMs)""")
    channels_last = _Constant(conv_fast, "CHANNELS_LAST", """run strided
        float32 convs on channels-last rows (False: im2row's)""")
    cl_min_channels = _Constant(conv_fast, "CL_MIN_CHANNELS", """... for
        groups of at least this many input channels""")
    channels_last_simd = _Constant(conv_fast, "CL_SIMD", """run that
        path's float32 GEMMs with the explicit-vector kernels of
        ``kernels/simd.py`` (False: ``np.matmul``, OpenBLAS)""")
    winograd_grad_max_dilation = _Constant(conv_fast, "WINOGRAD_GRAD_MAX_DILATION",
        """the largest dilation a gradient-side pass for one result (dx or
        dw alone, the transposed conv's forward) takes through Winograd""")
    winograd_glue = _Constant(_winograd, "GLUE", """run a 3×3 conv at
        dilation 2 and padding 2 through Winograd as one conv on its four
        phases glued into one plane (False: four phase convs)""")
    winograd_block_tiles = _Constant(_winograd, "BLOCK_TILES", """Winograd
        tile slots per block (one 32×32 image's planes in L2)""")
    winograd_block_bytes = _Constant(_winograd, "BLOCK_BYTES", """and at most
        this many bytes of transform planes per block""")
    pool_min_elements = _Constant(pool_threads, "MIN_ELEMENTS", """elements
        from which a pooling call is split over threads""")
    parallel_min_size = _Constant(_jit, "PARALLEL_MIN_SIZE", """elements
        of its first array from which a kernel runs its parallel build""")

    @property
    def threads(self) -> int:
        """Numba's thread count, the one the pipeline splits over
        (``NUMBA_NUM_THREADS`` sets it at start; this, later)."""
        import numba

        return numba.get_num_threads()

    @threads.setter
    def threads(self, n: int) -> None:
        import numba

        numba.set_num_threads(n)

    def __repr__(self) -> str:
        names = ["min_work", "threads", *(k for k, v in vars(Settings).items()
                                           if isinstance(v, _Constant))]
        return "Settings(" + ", ".join(f"{k}={getattr(self, k)!r}"
                                       for k in names) + ")"


#: the Numba backend's settings
SETTINGS = Settings()
