comm.group @g ranks = [[0, 2], [2, 3]]
