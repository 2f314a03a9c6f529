"""TowerLab cleanroom package."""
