import CHEIF
