module example.com/duplicates

go 1.24
