'''
Dark Tower (Milton Bradley, 1981) board decoder for the TMS1400 MP7332 pins.

Annotates what a person sees and hears, decoded from the chip's R, O and K lines:
the two 7-segment digits (per 1/60 s window), the three card lamps (R5-R7), the reel
motor (R9), speaker tones (R10 while R4 is low) and the keys the chip's scan saw pressed.
Install by pointing SIGROKDECODE_DIR at TowerLab's analysis/sigrok_pd folder (or copying
this folder into ~/.local/share/libsigrokdecode/decoders/).
'''

from .pd import Decoder
