"""Writes GRAPH with its "topology" replaced by the JSON value TOPOLOGY:
  with_topology.py GRAPH TOPOLOGY OUT"""
import json
import sys

graph = json.load(open(sys.argv[1]))
graph["topology"] = json.loads(sys.argv[2])
json.dump(graph, open(sys.argv[3], "w"), indent=1)
