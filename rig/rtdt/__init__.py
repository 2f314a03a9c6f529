"""The Return to Dark Tower (2022) over Bluetooth LE: the bleak client, a simulated bleak
backend reaching the virtual tower, a virtual clock, and record/check (docs/rtdt-protocol.md).
"""
