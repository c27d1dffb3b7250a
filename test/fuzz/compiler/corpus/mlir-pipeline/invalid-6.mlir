comm.group @g ranks = [[0, 1], [2, 3, 4]]
