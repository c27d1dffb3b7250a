# Installation and the CMake package config for downstream projects.
