"""The TowerLab bench: press and watch a real Dark Tower, or the same drivers on a virtual one.

Modules (see rig/README.md):

    protocol, buttonbox   the button-box serial protocol (construct) and its pyserial host side
    firmware/, sim/       the ATmega328P firmware (C) and the simavr harness that runs it
    simbox                the firmware in simavr behind a pseudo-terminal
    fx2lafw, usbsim       the fx2lafw analyser driver on pyusb and the simulated FX2 backend
    sigrok_cli            any sigrok analyser through sigrok-cli
    bench                 the virtual bench (one clock for AVR, tower, analyser)
    towers/               the towers: emulated (EmulatorTower, ReplayTower), real (RealTower:
                          box + analyser + decoders), fakes (PinTower)
    specs, recording      target specs and open_target; the recording layout
    record, check,        record / check / import recordings; pytest_plugin: the tower fixture
    importing
"""

__all__: list[str] = []
