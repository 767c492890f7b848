"""The compiled engine: the game as Numba functions over batched arrays.

Everything in this folder is compiled (or read by what is compiled), and nothing else is: the cache
of compiled code is keyed by a hash of this folder, ``samsim/components.py`` and
``samsim/illegal.py``, the only modules outside it that it imports (``samsim.kernel.jit``).

    jit        the decorator every rule uses, and where compiled code is kept
    inlining   Numba's inliner without its copy of a callee's scope per block (same code, faster)
    components (outside: samsim.components) the component data the kernels read
    bits, rng  bitmaps, and the counter-based random streams keyed by (seed, game)
    events     the event log; decisions: the decision record; state: the batch's arrays
    rules/     one module per phase of a round, and the round itself
    contract   what a strategy sees (View) and how its functions are compiled (decision)
    moves      default decisions, and the queries strategies share
    abi        calling a strategy compiled on its own, by address
    dispatch   who decides: a scenario's script, else the seat's strategy
    game       the compiled game loops (a batch, one position, one game)
    retarget   the same functions compiled again with one call swapped
    cuda       the game as a CUDA kernel per line-up (numba-cuda; imported only for --backend cuda)
"""
