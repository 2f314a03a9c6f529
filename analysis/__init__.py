"""TowerLab analysis: pin decoders, comparison, plots and sound for Dark Tower captures.

Modules (nothing is imported here; import what you need):

- ``decode``: ``StreamDecoder``/``decode``, stacking ``display``, ``lamps``, ``motor``,
  ``reel``, ``keypad`` and ``speaker`` (each documents its channels and events);
- ``compare``: event alignment, clock ratio, first difference, oscillator estimate;
- ``sound``: the speaker rendered like MAME's speaker device, WAV output;
- ``plot``: timing diagrams and sound pictures (matplotlib, Agg);
- ``synthetic``: long synthetic captures for scale tests and benchmarks;
- ``sigrok_pd/darktower``: the same decoding as a libsigrokdecode decoder for PulseView.
"""

__all__: list[str] = []
