comm.group @dp ranks = [0, 1, 2, 3]
comm.group @tp ranks = [[0, 1], [4, 5]] parent @dp
