"""TowerLab emulator package."""
