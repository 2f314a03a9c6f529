"""TowerLab analysis package."""
