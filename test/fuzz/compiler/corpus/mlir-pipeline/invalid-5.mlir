comm.group @g ranks = []
