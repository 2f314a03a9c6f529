"""TowerLab rig package."""
