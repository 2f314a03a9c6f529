"""TowerLab towerlab package."""
