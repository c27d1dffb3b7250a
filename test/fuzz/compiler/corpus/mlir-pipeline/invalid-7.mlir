comm.group @g ranks = [0, 1] parent @missing
