module example.com/goexample

go 1.22
