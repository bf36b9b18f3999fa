module github.com/kg-memory/kg

go 1.26
