module example.com/wallet

go 1.22
